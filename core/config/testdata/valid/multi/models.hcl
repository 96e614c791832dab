workspace = "../prompts"

provider "deepseek" {
  api_key = env("DEEPSEEK_API_KEY")
}

model "flash" {
  provider = "deepseek"
  pricing {
    input_cache_miss = 0.15
    output           = 0.6
  }
}
