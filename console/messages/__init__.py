"""messages pages of the console: the list of a service's messages, each message's page, its CSV report."""
