# The scripted built-in's block: script is a path the host resolves.
provider "ok" {
  plugin     = "provider-script"
  script     = "turns.script"
  chunk_size = 4
  delay_ms   = 0
}

provider "typed" {
  plugin     = "provider-script"
  script     = "turns.script"
  chunk_size = ["a"]         # ERROR: Incorrect attribute value type
  api_key    = "sk-x"        # ERROR: Unsupported argument
}

provider "absent" {
  plugin = "provider-script"
  script = "no-such.script" # ERROR: File not found
}

provider "none" { # ERROR: Missing required argument
  plugin = "provider-script"
}
