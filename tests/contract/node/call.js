// Calls one operation of the official Node client against NOTIFY_BASE_URL with NOTIFY_API_KEY and
// prints {"status", "data"} as JSON (the error response's status and body when the call fails), so
// the pytest side asserts on exactly what a Node user sees.
//
// usage: node call.js <operation> '<JSON array of arguments>'
'use strict';

const { NotifyClient } = require('notifications-node-client');

async function main() {
  const [operation, rawArgs] = process.argv.slice(2);
  const client = new NotifyClient(process.env.NOTIFY_BASE_URL, process.env.NOTIFY_API_KEY);
  if (typeof client[operation] !== 'function') throw new Error(`unknown operation ${operation}`);
  const args = JSON.parse(rawArgs || '[]');
  try {
    const response = await client[operation](...args);
    const data = Buffer.isBuffer(response.data) ? { base64: response.data.toString('base64') } : response.data;
    return { status: response.status, data };
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
