package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// ConfigFile is the name of the workspace configuration file, read at the workspace root.
const ConfigFile = "jstk.json"

// Config is the workspace configuration: {"resolve": {"<uri or prefix/>": "<path>"}}, and a
// block per engine that has settings (today "lint", which the lint tool reads itself).
type Config struct {
	// Resolve maps a URI, or a URI prefix ending in "/", to a file or directory of the
	// workspace, so that $ref to it resolves offline.
	Resolve map[string]string
}

// LoadConfig reads jstk.json at the root of fsys; a missing file is an empty Config.
func LoadConfig(fsys workspace.FS) (*Config, error) {
	cfg := &Config{Resolve: map[string]string{}}
	data, err := workspace.ReadFile(fsys, ConfigFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "no such file") {
			return cfg, nil
		}
		return nil, err
	}
	doc, err := source.ParseJSON(ConfigFile, data, nil)
	if err != nil {
		return nil, err
	}
	root := doc.Root
	if root.Kind() != source.Object {
		return nil, fmt.Errorf("%s: the configuration must be a JSON object", ConfigFile)
	}
	for i := 0; i < root.Len(); i++ {
		k, v := root.Member(i)
		switch k.Str() {
		case "resolve":
			if v.Kind() != source.Object {
				line, col := doc.Position(v.Offset())
				return nil, fmt.Errorf("%s:%d:%d: \"resolve\" must map URIs to paths", ConfigFile, line, col)
			}
			for j := 0; j < v.Len(); j++ {
				uk, pv := v.Member(j)
				if pv.Kind() != source.String {
					line, col := doc.Position(pv.Offset())
					return nil, fmt.Errorf("%s:%d:%d: the path for %q must be a string", ConfigFile, line, col, uk.Str())
				}
				cfg.Resolve[uk.Str()] = pv.Str()
			}
		case "lint":
			if v.Kind() != source.Object {
				line, col := doc.Position(v.Offset())
				return nil, fmt.Errorf("%s:%d:%d: \"lint\" must be an object", ConfigFile, line, col)
			}
		default:
			line, col := doc.Position(k.Offset())
			return nil, fmt.Errorf("%s:%d:%d: unknown setting %q (known: resolve, lint)", ConfigFile, line, col, k.Str())
		}
	}
	return cfg, nil
}

// ParseResolve reads a --resolve URI=PATH argument.
func ParseResolve(arg string) (string, string, error) {
	uri, path, ok := strings.Cut(arg, "=")
	if !ok || uri == "" || path == "" {
		return "", "", fmt.Errorf("--resolve %q: expected URI=PATH", arg)
	}
	return uri, path, nil
}
