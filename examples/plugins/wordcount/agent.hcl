# Try the wordcount plugin offline: the scripted provider (turns.hcl) calls
# its tool; no key, no network. Build and lock first (see main.go):
#
#   go build -o bin/harness-tool-wordcount .
#   harness plugins lock agent.hcl
#   harness run agent.hcl "Count the words"

plugin "wordcount" {
  path = "./bin/harness-tool-wordcount"
}

provider "offline" {
  plugin = "provider-script"
  script = "turns.hcl"
}

model "scripted" {
  provider       = "offline"
  id             = "script"
  context_window = 128000
}

agent "try" {
  model = "scripted"
  tools = ["wordcount"]
}
