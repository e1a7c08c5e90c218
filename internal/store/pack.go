package store

import (
	"archive/zip"
	"compress/flate"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// PackStats says what Pack wrote.
type PackStats struct {
	Commit  string // the snapshot's commit
	Entries int    // catalog entries
	Schemas int    // schema files vendored
	Raw     int64  // their bytes, uncompressed
}

// Pack writes the store of the snapshot directory dir of fsys (SchemaStore's layout) to
// w: the catalog, every schema file, LICENSE and NOTICE, and the commit, which is commit
// when given, else the one the snapshot's PROVENANCE.md names (one of the two is
// required). The output depends only on the input: members in name order, no times.
func Pack(fsys workspace.FS, dir, commit string, w io.Writer) (*PackStats, error) {
	c, err := readDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	if commit == "" {
		commit = c.commit
	}
	if commit == "" {
		return nil, fmt.Errorf("%s: no commit: the snapshot has no PROVENANCE.md naming one; give it with -commit", dir)
	}
	st := &PackStats{Commit: commit, Entries: len(c.entries), Schemas: len(c.schemas)}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	put := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	if err := put(provenanceMember, []byte("SchemaStore https://github.com/SchemaStore/schemastore commit "+commit+"\n")); err != nil {
		return nil, err
	}
	for _, m := range []string{licenceMember, noticeMember} {
		data, ok, err := c.read(m)
		if err != nil {
			return nil, err
		}
		if !ok && m == licenceMember {
			return nil, fmt.Errorf("%s: the snapshot has no %s: SchemaStore's licence must travel with its files", dir, m)
		}
		if !ok {
			continue
		}
		if err := put(m, data); err != nil {
			return nil, err
		}
	}
	cat, err := workspace.ReadFile(fsys, path.Join(dir, snapCatalog), 64<<20)
	if err != nil {
		return nil, err
	}
	if err := put(catalogMember, cat); err != nil {
		return nil, err
	}
	for _, s := range c.schemas {
		data, _, err := c.read(schemasDir + s)
		if err != nil {
			return nil, err
		}
		st.Raw += int64(len(data))
		if err := put(schemasDir+s, data); err != nil {
			return nil, err
		}
	}
	return st, zw.Close()
}
