plugin "weather" {
  path   = "../bin/harness-tool-weather"
  sha256 = "8c1c58d223e9242a47f53e8ff2c42b8b49739014ac3a32a6c295516763104028"
}
