"""template_editor pages of the console: a service's templates in folders, their versions and live previews."""
