# What the scripted model says, turn by turn (format: plugins/provider-script/README.md).

turn {
  reasoning = "Look at the README and find the open TODOs before changing anything."
  text      = "I'll read the README and look for TODOs first."
  tool_call "read_file" {
    arguments = { path = "README.md" }
  }
  tool_call "search_workspace" {
    arguments = { query = "TODO", glob = "*.go" }
  }
}

turn {
  text = "Two TODOs in src/. I'll write a summary into out/, which I may write directly."
  tool_call "write_file" {
    arguments = {
      path    = "out/summary.md"
      content = "# Open TODOs\n\n- src/greet.go: greet people by name\n- src/greet.go: handle an empty name\n"
    }
  }
}

turn {
  text = "The heading should say where the TODOs are. I'll edit that one line, then check the summary's length with an allowed command."
  tool_call "edit_file" {
    arguments = {
      path       = "out/summary.md"
      old_string = "# Open TODOs\n"
      new_string = "# Open TODOs in src/\n"
    }
  }
  tool_call "terminal" {
    arguments = { command = "wc -l out/summary.md" }
  }
}

turn {
  text = "And clean up the scratch folder."
  tool_call "terminal" {
    arguments = { command = "rm -rf out/scratch" }
  }
}

turn {
  text = "Removing files is denied here, so I'll leave the scratch folder. Recording a note for the team."
  tool_call "emit_artifact" {
    arguments = {
      type    = "note"
      payload = { title = "TODOs summarized", body = "out/summary.md lists the 2 open TODOs of src/greet.go." }
    }
  }
}

turn {
  text = <<-EOT
    Done. I read the README, found 2 TODOs in src/greet.go, and wrote them to out/summary.md
    (4 lines). Deleting out/scratch was denied by policy, so it is still there.
  EOT
}
