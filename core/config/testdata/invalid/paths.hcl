plugin "missing" {
  path = "./bin/harness-tool-missing" # ERROR: Plugin file not found
}

plugin "dir" {
  path = "../valid/bin" # ERROR: Plugin file not found
}

hook "gone" {
  path   = "bin/harness-hook-missing" # ERROR: Hook file not found
  phases = ["tools/result"]
}

plugin "ok" {
  path = "../valid/bin/harness-tool-weather"
}
