mcp "neither" { # ERROR: Missing MCP transport
  approval = "ask"
}

mcp "both" {
  command = ["server"]
  url     = "https://example.com/mcp" # ERROR: Conflicting MCP transports
}

mcp "bad__name" { # ERROR: Invalid MCP server name
  command = ["server"]
}

mcp "http" {
  url = "example.com/mcp" # ERROR: Invalid url
  env = { A = "1" }       # ERROR: Unexpected env
}

mcp "empty" {
  command = [] # ERROR: Empty value
}
