package pluginhost

// Failure is what a call of plugin name that failed with err on its
// process of generation gen is told (process.failure).
func (h *Host) Failure(name string, gen int, err error) error {
	return h.plugins[name].proc.failure(gen, name, err)
}

// Generation is the generation of the process plugin name runs in.
func (h *Host) Generation(name string) int { return h.plugins[name].generation() }
