workspace = "no-such-dir" # ERROR: Workspace not found

provider "p" {
  base_url     = "api.example.com" # ERROR: Invalid URL
  headers      = ["X-A"]           # ERROR: Incorrect attribute value type
  require_done = "sometimes"       # ERROR: Incorrect attribute value type
}

model "m" { # ERROR: Missing required argument
  id = "model-id"
}

model "n" {
  provider       = "p"
  context_window = "big"  # ERROR: Incorrect attribute value type
  max_output     = 1.5    # ERROR: Incorrect attribute value type
  thinking       = "sure" # ERROR: Incorrect attribute value type
  pricing { # ERROR: Missing required argument
    input_cache_miss = -1 # ERROR: Value out of range
  }
}

plugin "x" {
  path   = "../valid/bin/harness-tool-weather"
  sha256 = "abc" # ERROR: Invalid sha256
}

agent "a" { # ERROR: Missing required argument
  modle = "m" # ERROR: Unsupported argument
}

agent "b" {
  model     = { name = "m" } # ERROR: Incorrect attribute value type
  max_turns = 0              # ERROR: Value out of range
  tools = [
    "read_file",
    "read file", # ERROR: Invalid tool name
    "srv__*",
    "read_file",
  ]
  context {
    keep_recent = -1 # ERROR: Value out of range
  }
  permissions {
    write          = ["src/**", "/etc/**", "../up/*"] # ERROR: Invalid write glob
    allow_commands = [""]                            # ERROR: Empty value
  }
  limits { # ERROR: Unsupported block type
  }
}

agent "c" {
  model   = "m"
  tools   = "read_file" # ERROR: Incorrect attribute value type
  system  = var.prompt  # ERROR: Variables not allowed
  persona = nofunc("x") # ERROR: Call to unknown function
}
