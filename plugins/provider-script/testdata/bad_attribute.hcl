turn {
  text    = "x"
  content = "unknown attribute"
}
