turn {
  text = "Second time lucky."
  fail {
    kind           = "rate_limited"
    retry_after_ms = 1500
    after_chunks   = 2
  }
}
