package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/harness-agent/harness/sdk/schema"
)

// formatError is a string setting that does not have its property's
// format: a diagnostic of its own summary rather than a type error.
type formatError struct{ summary, detail string }

func (e *formatError) Error() string { return e.detail }

// checkFormat checks a string setting against the format its schema names
// (schema.FormatPath, FormatDuration, FormatHTTPURL) and returns the value
// the plugin gets: a path made absolute, anything else as it is. Other
// formats are the validator's.
func checkFormat(s, format, name string, env decodeEnv) (any, error) {
	switch format {
	case schema.FormatPath:
		return resolvePath(s, name, env)
	case schema.FormatDuration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, &formatError{"Invalid duration", fmt.Sprintf(
				"%s = %q is not a duration: write a number with a unit, like \"90s\", \"2m\" or \"1m30s\".", name, s)}
		}
		if d <= 0 {
			return nil, &formatError{"Invalid duration", fmt.Sprintf("%s must be positive; got %q.", name, s)}
		}
	case schema.FormatHTTPURL:
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &formatError{"Invalid URL", fmt.Sprintf(
				"%s must be an http:// or https:// URL such as \"https://api.example.com\"; got %q.", name, s)}
		}
	}
	return s, nil
}

// resolvePath resolves a path setting against the directory of the file
// that sets it and requires a readable file, which env.record keeps.
func resolvePath(p, name string, env decodeEnv) (string, error) {
	if p == "" {
		return "", &formatError{"Empty value", fmt.Sprintf("%s must not be empty: set it to the path of a file.", name)}
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(env.dir, p)
	}
	full = filepath.Clean(full)
	st, err := os.Stat(full)
	if err != nil || st.IsDir() {
		return "", &formatError{"File not found", fmt.Sprintf(
			"%s = %q is not a readable file; relative paths start at the directory of the file that declares it.", name, p)}
	}
	if env.record != nil {
		if data, err := os.ReadFile(full); err == nil {
			env.record(full, data)
		}
	}
	return full, nil
}
