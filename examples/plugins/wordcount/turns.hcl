# What the scripted model says, turn by turn.

turn {
  text = "I'll count the words."
  tool_call "wordcount" {
    arguments = { text = "the quick brown fox" }
  }
}

turn {
  text = "The text has four words."
}
