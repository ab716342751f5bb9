terraform {
  required_providers {
    gse = {
      source = "bk-gse/gse"
    }
  }
}

# Credentials usually come from the environment, as in other BlueKing tooling:
# BK_COMPONENT_API_URL, BK_APP_CODE, BK_APP_SECRET and BK_USERNAME (or BK_TOKEN).
provider "gse" {
  request_timeout = "30s"
  max_retries     = 5
}
