"""Email providers: SMTP, and the MIME message every email provider sends."""
from pipeline.infrastructure.providers.email.message import build_email
from pipeline.infrastructure.providers.email.smtp import SmtpProvider

__all__ = ["SmtpProvider", "build_email"]
