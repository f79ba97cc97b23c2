package replay

// modelOnly returns the one network model that reads the setting named
// key, and false for the settings every model (or several) read.
func modelOnly(key string) (ModelKind, bool) {
	switch key {
	case "routing", "vcs", "buffer", "router-delay", "sample-period", "wait-threshold":
		return ModelPacket, true
	case "L", "o", "g", "G", "O", "S":
		return ModelLogGOPS, true
	case "switching", "startup", "flit":
		return ModelPuppet, true
	case "envelope":
		return ModelSimGrid, true
	}
	return 0, false
}

// Unused says why the setting named key has no effect on a simulation of
// c ("not used by puppet", "not used by analytic collectives"), or ""
// when it may have one. It errs on the side of "": a setting it does not
// know of, or that several models read, counts as used.
func Unused(c *Config, key string) string {
	if m, ok := modelOnly(key); ok && m != c.Model {
		return "not used by " + modelName(c.Model)
	}
	switch {
	case key == "coll-alg" && c.Collectives == CollAnalytic:
		return "not used by analytic collectives"
	case key == "coll-factor" && c.Collectives == CollExpand:
		return "not used by expanded collectives"
	}
	return ""
}

// modelName returns the model's name as the "model" setting writes it.
func modelName(m ModelKind) string {
	c := Config{Model: m}
	if v, err := c.Get("model"); err == nil {
		return v
	}
	return "this model"
}
