"""The SMS gateways page of the console (platform admins): each gateway's state and its pace."""
