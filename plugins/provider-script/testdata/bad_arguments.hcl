turn {
  tool_call "read_file" {
    arguments = ["README.md"]
  }
}
