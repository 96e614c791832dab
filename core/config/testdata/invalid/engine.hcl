provider "p" {}
model "m" { provider = "p" }
agent "a" {
  model = "m"
  permissions {
    approval_timeout = "a day" # ERROR: Invalid duration
  }
}

engine "temporal" {
  address    = "localhost" # ERROR: Invalid Temporal address
  task_queue = "agents"
  heartbeat  = "-3s" # ERROR: Invalid duration
}

engine "temporal" { # ERROR: Duplicate engine block
  address    = "localhost:7233"
  task_queue = "agents"
}
