// Calls one operation of the official Node client against NOTIFY_BASE_URL with NOTIFY_API_KEY and
// prints {"status", "data"} as JSON (the error response's status and body when the call fails), so
// the pytest side asserts on exactly what a Node user sees.
//
// usage: node call.js <operation> '<JSON array of arguments>'
//
// An argument (or a value inside one) written {"$file": "<base64>"} is passed as a Buffer of those
// bytes, as a Node user passes a file read from disk. A Buffer that comes back is printed as
// {"base64": "..."}. Client helpers that return something other than an HTTP response are printed
// with that value as data: prepareUpload (no request made) with status null, and
// getPdfForLetterNotification (resolves to the PDF bytes alone, only on success) with status 200.
'use strict';

const { NotifyClient } = require('notifications-node-client');

const decode = (key, value) =>
  value && typeof value === 'object' && typeof value.$file === 'string' && Object.keys(value).length === 1
    ? Buffer.from(value.$file, 'base64')
    : value;
const encode = (value) => (Buffer.isBuffer(value) ? { base64: value.toString('base64') } : value);

async function main() {
  const [operation, rawArgs] = process.argv.slice(2);
  const client = new NotifyClient(process.env.NOTIFY_BASE_URL, process.env.NOTIFY_API_KEY);
  if (typeof client[operation] !== 'function') throw new Error(`unknown operation ${operation}`);
  const args = JSON.parse(rawArgs || '[]', decode);
  try {
    const returned = client[operation](...args);
    if (!(returned instanceof Promise)) return { status: null, data: encode(returned) };
    const response = await returned;
    if (Buffer.isBuffer(response)) return { status: 200, data: encode(response) };
    return { status: response.status, data: encode(response.data) };
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
