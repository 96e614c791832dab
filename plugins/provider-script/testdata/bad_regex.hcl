turn {
  text  = "fine"
}

turn {
  match = "(unclosed"
  text  = "never"
}
