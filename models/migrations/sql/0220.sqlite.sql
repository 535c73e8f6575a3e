-- Step 220: case events (issue 52): a service's link to the ZGW APIs (roots, sealed credentials, the
-- case types taking part, a template per scenario and channel, its subscription at Open Notificaties)
-- and each message Open Notificaties posted, recorded once, with what became of it; sqlite.
CREATE TABLE IF NOT EXISTS "case_event_link" ("id" TEXT NOT NULL PRIMARY KEY, "service_id" TEXT NOT NULL, "zaken_root" VARCHAR(1000) NOT NULL, "catalogi_root" VARCHAR(1000) NOT NULL, "klant_root" VARCHAR(1000) NOT NULL, "client_id" VARCHAR(255) NOT NULL, "client_secret" TEXT NOT NULL, "klant_token" TEXT NOT NULL, "nrc_root" VARCHAR(1000), "nrc_client_id" VARCHAR(255), "nrc_secret" TEXT, "callback_auth" TEXT NOT NULL, "subscription_url" VARCHAR(1000), "subscription_state" VARCHAR(40), "subscription_checked_at" DATETIME, "case_types" TEXT NOT NULL, "templates" TEXT NOT NULL, "created_at" DATETIME NOT NULL, "updated_at" DATETIME NOT NULL, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
CREATE UNIQUE INDEX IF NOT EXISTS "caseeventlink_service_id" ON "case_event_link" ("service_id");
CREATE TABLE IF NOT EXISTS "case_event" ("id" TEXT NOT NULL PRIMARY KEY, "link_id" TEXT NOT NULL, "service_id" TEXT NOT NULL, "message_key" VARCHAR(64) NOT NULL, "message" TEXT NOT NULL, "received_at" DATETIME NOT NULL, "state" VARCHAR(40) NOT NULL, "detail" TEXT, "attempts" INTEGER NOT NULL, "next_attempt_at" DATETIME, "updated_at" DATETIME NOT NULL, "zaak_identificatie" VARCHAR(40), "status_omschrijving" VARCHAR(80), "scenario" VARCHAR(20), "channel" VARCHAR(10), "notification_id" TEXT, "partij_url" VARCHAR(1000), "zaak_url" VARCHAR(1000), "contact_state" VARCHAR(20), "contact_url" VARCHAR(1000), FOREIGN KEY ("link_id") REFERENCES "case_event_link" ("id") ON DELETE CASCADE, FOREIGN KEY ("service_id") REFERENCES "service" ("id") ON DELETE CASCADE);
-- A message posted again is recorded once: the key is what identifies it.
CREATE UNIQUE INDEX IF NOT EXISTS "caseevent_link_id_message_key" ON "case_event" ("link_id", "message_key");
CREATE INDEX IF NOT EXISTS "caseevent_service_id_received_at" ON "case_event" ("service_id", "received_at");
CREATE INDEX IF NOT EXISTS "caseevent_service_id_zaak_identificatie" ON "case_event" ("service_id", "zaak_identificatie");
CREATE INDEX IF NOT EXISTS "caseevent_notification_id" ON "case_event" ("notification_id");
-- What is due (an event to process, a klantcontact to record), for the sweep.
CREATE INDEX IF NOT EXISTS "case_event_due" ON "case_event" ("next_attempt_at") WHERE ("next_attempt_at" IS NOT NULL);
