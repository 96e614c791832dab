# Loads cleanly; every marked line fails Check against the fake catalog of check_test.go.
provider "p" {
  plugin = "provider-nope" # ERROR: Unknown provider plugin
}

provider "scripted" {
  plugin = "provider-script"
  script = "check.hcl"
}

provider "own" {
  plugin = "weather"
}

model "m" {
  provider = "p"
}

plugin "weather" {
  path = "../valid/bin/harness-tool-weather"
  config {
    units   = "kelvin"            # ERROR: Invalid plugin config value
    days    = "three"             # ERROR: Incorrect attribute value type
    unit    = "metric"            # ERROR: Unsupported argument
    cities  = ["Oslo", { a = 1 }] # ERROR: Incorrect attribute value type
    limits  = { max = "lots" }    # ERROR: Incorrect attribute value type
    verbose = true
  }
}

plugin "forecast" {
  path = "../valid/bin/harness-tool-weather"
  config { # ERROR: Missing required argument
    days = 2
  }
}

plugin "needsconfig" { # ERROR: Missing required argument
  path = "../valid/bin/harness-tool-weather"
}

plugin "noschema" {
  path = "../valid/bin/harness-tool-weather"
  config { # ERROR: Unexpected config block
    a = 1
  }
}

plugin "bare" {
  path = "../valid/bin/harness-tool-weather"
}

mcp "everything" {
  command = ["everything"]
}

agent "a" {
  model = "m"
  tools = [
    "read_file",
    "emit_artifact",
    "everything__echo",
    "everything__*",
    "weather_forecast",
    "read_files",    # ERROR: Unknown tool
    "nothing__*",    # ERROR: Unknown tool
    "nothing__echo", # ERROR: Unknown tool
  ]
}

agent "b" {
  model = "m"
  tools = ["read_file", "wether_forecast"] # ERROR: Unknown tool
}
