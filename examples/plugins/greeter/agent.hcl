# Try the greeter provider plugin: it answers with a canned reply, no key
# needed. Build and lock first (see main.go):
#
#   go build -o bin/harness-provider-greeter .
#   harness plugins lock agent.hcl
#   harness run agent.hcl "Say hello"

plugin "greeter" {
  path = "./bin/harness-provider-greeter"
}

provider "greeter" {
  plugin = "greeter"             # a plugin block's name: this provider's plugin
  reply  = "Hello from greeter." # a setting of the plugin's own schema
}

model "canned" {
  provider = "greeter"
  id       = "greeter-canned"
}

agent "try" {
  model = "canned"
  tools = []
}
