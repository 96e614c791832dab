provider "p" {
  timeout_first_token = "2 minutes" # ERROR: Invalid duration
  timeout_idle        = "-1s"       # ERROR: Invalid duration
}

model "m" { provider = "p" }

hook "h" {
  path    = "../valid/bin/harness-hook-approver"
  phases  = ["tools/approve"]
  timeout = "10" # ERROR: Invalid duration
}

agent "a" {
  model = "m"
  permissions {
    terminal_timeout = "1h" # ERROR: Invalid duration
  }
}

agent "b" {
  model = "m"
  permissions {
    terminal_timeout     = "30s"
    terminal_max_timeout = "soon" # ERROR: Invalid duration
  }
}
