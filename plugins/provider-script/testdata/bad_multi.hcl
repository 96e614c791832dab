turn {
  match = "["
  text  = "a"
}
turn {
}
