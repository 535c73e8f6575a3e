"""Email providers: SMTP, and the MIME message every email provider sends."""
from pipeline.providers.email.message import build_email
from pipeline.providers.email.smtp import SmtpProvider

__all__ = ["SmtpProvider", "build_email"]
