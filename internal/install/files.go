package install

import (
	"io/fs"
)

// File is one file a recipe copies into its install: its bytes, and whether it is executable.
type File struct {
	Data []byte
	Exec bool
}

// Files reads the files the recipe copies, by slash-separated path, skipping what an install
// never copies (a repository's history, a checkout's own node_modules and venv, links): what a
// defined client's cell image holds at /opt/client, the same as its local install.
func Files(r Recipe) (map[string]File, error) {
	files := map[string]File{}
	err := r.walk(func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		b, err := fs.ReadFile(r.Files, rel)
		if err != nil {
			return err
		}
		files[rel] = File{Data: b, Exec: isExec(d)}
		return nil
	})
	return files, err
}
