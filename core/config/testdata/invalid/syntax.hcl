provider "p" {
  api_key = # ERROR: Invalid expression
}
