provider "p" {}
model "m" { provider = "p" }
agent "a" { model = "m" }

engine "kubernetes" { # ERROR: Unknown engine
  address    = "localhost:7233"
  task_queue = "agents"
}
