module github.com/jstk-dev/jstk

go 1.26.8

require (
	github.com/dlclark/regexp2/v2 v2.13.0
	github.com/google/go-cmp v0.7.0
	github.com/pelletier/go-toml/v2 v2.4.3
	go.yaml.in/yaml/v4 v4.0.0
	golang.org/x/net v0.62.0
)

require (
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)
