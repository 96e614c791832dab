# Every default.
provider "ds" {}

model "chat" {
  provider = "ds"
}

agent "solo" {
  model = "chat"
}
