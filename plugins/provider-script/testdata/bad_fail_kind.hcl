turn {
  text = "x"
  fail {
    kind = "flaky"
  }
}
