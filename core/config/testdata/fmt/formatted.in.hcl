# Already canonical: formatting changes nothing.
provider "p" {
  plugin  = "provider-script"
  headers = { "X-A" = "1" }
}

agent "a" {
  model = "m"
}
