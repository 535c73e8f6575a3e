// Sends one file by email with the official Node client's prepareUpload against NOTIFY_BASE_URL with
// NOTIFY_API_KEY and prints {"status", "data"} as JSON (the error response's status and body when the
// call fails), for tests/contract/test_node_client_files.py.
//
// usage: node files.js <templateId> <emailAddress> <filePath> <filename|""> <confirm: true|false|""> <retention|"">
'use strict';

const fs = require('fs');
const { NotifyClient } = require('notifications-node-client');

async function main() {
  const [templateId, emailAddress, filePath, filename, confirm, retention] = process.argv.slice(2);
  const client = new NotifyClient(process.env.NOTIFY_BASE_URL, process.env.NOTIFY_API_KEY);
  // Empty arguments stand for "not given", as the client itself treats falsy options.
  const options = {};
  if (filename) options.filename = filename;
  if (confirm) options.confirmEmailBeforeDownload = confirm === 'true';
  if (retention) options.retentionPeriod = retention;
  const link = client.prepareUpload(fs.readFileSync(filePath), options);
  try {
    const response = await client.sendEmail(templateId, emailAddress, { personalisation: { link } });
    return { status: response.status, data: response.data };
  } catch (err) {
    if (!err.response) throw err;
    return { status: err.response.status, data: err.response.data };
  }
}

main().then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (err) => {
    process.stderr.write(String(err && err.stack ? err.stack : err));
    process.exit(1);
  },
);
