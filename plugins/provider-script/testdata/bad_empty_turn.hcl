turn {
  text = "ok"
}
turn {
  finish_reason = "stop"
}
