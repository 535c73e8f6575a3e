// Letters through the official Node client against NOTIFY_BASE_URL with NOTIFY_API_KEY; prints
// {"status", "data"} as JSON (the error response's status and body when the call fails), so the
// pytest side (tests/contract/test_node_client_letters.py) asserts on exactly what a Node user sees.
//
// usage: node letters.js sendLetter <templateId> <personalisation JSON> [reference]
//        node letters.js sendPrecompiledLetter <reference> <pdf file> [postage]
//        node letters.js getPdfForLetterNotification <id> [wait seconds]
//            (retries while the answer is PDFNotReadyError; data is {"pdf": <base64 of the bytes>})
'use strict';

const fs = require('fs');
const { NotifyClient } = require('notifications-node-client');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function getPdf(client, id, waitSeconds) {
  const deadline = Date.now() + Number(waitSeconds || 0) * 1000;
  for (;;) {
    try {
      const pdf = await client.getPdfForLetterNotification(id);
      return { status: 200, data: { pdf: Buffer.from(pdf).toString('base64') } };
    } catch (err) {
      if (!err.response) throw err;
      const notReady = (err.response.data.errors || []).some((e) => e.error === 'PDFNotReadyError');
      if (!notReady || Date.now() > deadline) return { status: err.response.status, data: err.response.data };
      await sleep(200);
    }
  }
}

async function main() {
  const [operation, ...args] = process.argv.slice(2);
  const client = new NotifyClient(process.env.NOTIFY_BASE_URL, process.env.NOTIFY_API_KEY);
  try {
    let response;
    if (operation === 'sendLetter') {
      const [templateId, personalisation, reference] = args;
      response = await client.sendLetter(templateId, { personalisation: JSON.parse(personalisation), reference });
    } else if (operation === 'sendPrecompiledLetter') {
      const [reference, path, postage] = args;
      response = await client.sendPrecompiledLetter(reference, fs.readFileSync(path), postage || undefined);
    } else if (operation === 'getPdfForLetterNotification') {
      return await getPdf(client, args[0], args[1]);
    } else {
      throw new Error(`unknown operation ${operation}`);
    }
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
