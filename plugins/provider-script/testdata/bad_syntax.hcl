turn {
  text = "missing a quote
}
