provider "p" {}
model "m" { provider = "p" }
agent "a" { model = "m" }

telemetry {
  endpoint = "localhost:4318" # ERROR: Invalid telemetry endpoint
  protocol = "http/json"      # ERROR: Invalid protocol value
  content  = "yes please"     # ERROR: Incorrect attribute value type
}

telemetry { # ERROR: Duplicate telemetry block
}
