package jsonschema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Every exported name of the package has a doc comment (what pkg.go.dev and go doc show):
// the types, their exported fields and methods, the functions, constants and variables.
func TestEveryExportedNameIsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	named := 0
	missing := func(doc *ast.CommentGroup, what string, pos token.Pos) {
		named++
		if doc == nil || strings.TrimSpace(doc.Text()) == "" {
			t.Errorf("%s: %s has no doc comment", fset.Position(pos), what)
		}
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv)) {
					missing(d.Doc, d.Name.Name, d.Pos())
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil {
							doc = d.Doc
						}
						missing(doc, s.Name.Name, s.Pos())
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									if n.IsExported() {
										doc := fl.Doc
										if doc == nil {
											doc = fl.Comment
										}
										missing(doc, s.Name.Name+"."+n.Name, n.Pos())
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							doc := s.Doc
							if doc == nil {
								doc = s.Comment
							}
							if doc == nil && len(d.Specs) > 1 {
								doc = d.Doc // a documented group of constants
							}
							if doc == nil {
								doc = d.Doc
							}
							missing(doc, n.Name, n.Pos())
						}
					}
				}
			}
		}
	}
	if named < 30 {
		t.Errorf("only %d exported names found", named)
	}
}

func receiverExported(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	x := fl.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	id, ok := x.(*ast.Ident)
	return ok && id.IsExported()
}
