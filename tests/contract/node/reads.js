// Runs one read of the official Node client against NOTIFY_BASE_URL with NOTIFY_API_KEY and prints
// {"status", "data"} as JSON (the error response's status and body when the call fails), so the
// pytest side (tests/contract/test_node_client_reads.py) asserts on exactly what a Node user sees.
//
// usage: node reads.js getNotificationById <id>
//        node reads.js getNotifications [templateType] [status] [reference] [olderThanId]
//        node reads.js getReceivedTexts [olderThan]
'use strict';

const { NotifyClient } = require('notifications-node-client');

const OPERATIONS = ['getNotificationById', 'getNotifications', 'getReceivedTexts'];

async function main() {
  const [operation, ...args] = process.argv.slice(2);
  if (!OPERATIONS.includes(operation)) {
    throw new Error(`unknown operation ${operation}; expected one of ${OPERATIONS.join(', ')}`);
  }
  const client = new NotifyClient(process.env.NOTIFY_BASE_URL, process.env.NOTIFY_API_KEY);
  // Empty arguments stand for "not given", as the client itself treats falsy filters.
  const values = args.map((value) => (value === '' ? undefined : value));
  try {
    const response = await client[operation](...values);
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
