"""The "API integration" page: what a service's API keys sent lately and how its callbacks were answered."""
