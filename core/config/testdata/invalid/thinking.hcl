provider "claude" {
  plugin = "provider-anthropic"
}

model "zero_budget" {
  provider        = "claude"
  thinking        = true
  thinking_budget = 0 # ERROR: Value out of range
}

model "fraction" {
  provider        = "claude"
  thinking_budget = 1.5 # ERROR: Incorrect attribute value type
}

model "negative_write_price" {
  provider = "claude"
  pricing {
    input_cache_miss  = 3
    input_cache_write = -1 # ERROR: Value out of range
    output            = 15
  }
}

model "fine" {
  provider        = "claude"
  thinking        = true
  thinking_budget = 2048
  pricing {
    input_cache_hit   = 0.3
    input_cache_miss  = 3
    input_cache_write = 3.75
    output            = 15
  }
}
