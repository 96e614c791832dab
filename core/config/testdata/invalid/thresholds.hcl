provider "p" {}
model "m" { provider = "p" }

agent "zero" {
  model = "m"
  context {
    threshold = 0 # ERROR: Threshold out of range
  }
}

agent "above" {
  model = "m"
  context {
    threshold = 1.5 # ERROR: Threshold out of range
  }
}

agent "negative" {
  model = "m"
  context {
    threshold = -0.2 # ERROR: Threshold out of range
  }
}

agent "one" {
  model = "m"
  context {
    threshold = 1
  }
}
