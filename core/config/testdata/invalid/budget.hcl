provider "p" {}

model "priced" {
  provider = "p"
  pricing {
    input_cache_miss = 0.15
    output           = 0.6
  }
}

model "free" { provider = "p" }

agent "unpriced" {
  model = "free"
  budget {
    max_usd = 1 # ERROR: Budget without pricing
  }
}

agent "fallback" {
  model = ["priced", "free"]
  budget {
    max_tokens = 1000
    max_usd    = 2.5 # ERROR: Budget without pricing
  }
}

agent "tokens-only" {
  model = "free"
  budget {
    max_tokens = 1000
    max_usd    = 0
  }
}

agent "priced" {
  model = "priced"
  budget {
    max_usd = 3
  }
}
