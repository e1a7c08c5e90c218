package tools

import "strings"

// arg names an argument of the tool in an error, as the surface that called it does:
// "argument failUnder" over MCP, "--fail-under" on the command line (see Env.ArgName). A
// name may end in an index ("instances[2]").
func (env *Env) arg(name string) string {
	if env != nil && env.ArgName != nil {
		return env.ArgName(name)
	}
	return "argument " + name
}

// name is the bare name of an argument, as the surface calls it: "list" over MCP,
// "--list" on the command line.
func (env *Env) name(name string) string {
	if env != nil && env.ArgName != nil {
		return env.ArgName(name)
	}
	return name
}

// args names several arguments in an error: "arguments offset and limit" over MCP,
// "--offset and --limit" on the command line.
func (env *Env) args(names ...string) string {
	named := make([]string, len(names))
	for i, n := range names {
		named[i] = env.name(n)
	}
	list := named[len(named)-1]
	if len(named) > 1 {
		list = strings.Join(named[:len(named)-1], ", ") + " and " + list
	}
	if env == nil || env.ArgName == nil {
		if len(names) > 1 {
			return "arguments " + list
		}
		return "argument " + list
	}
	return list
}
