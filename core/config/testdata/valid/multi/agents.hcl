agent "reviewer" {
  model = "flash"
  context {
    threshold = 0.5
  }
  budget {
    max_usd = 2
  }
}

agent "context-manager" {
  model = "flash"
  context {
    summarizer = "context-manager"
  }
}
