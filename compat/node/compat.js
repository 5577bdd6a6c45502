// kafkajs (pure JavaScript) against a Kafka-protocol broker.
// Usage: node compat.js BOOTSTRAP PREFIX. Prints "CASE kafkajs <name> PASS|FAIL <detail>" per case and one
// COMPAT-SUMMARY line; exits 0 only when every case passed. Every wait is bounded. kafkajs has no assign(): the
// read-back case uses a group of its own starting from the beginning.
'use strict';
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const CLIENT = 'kafkajs';
const WAIT_MS = 30000;
const [bootstrap, prefix] = process.argv.slice(2);
if (!bootstrap || !prefix) {
  console.error('usage: node compat.js BOOTSTRAP PREFIX');
  process.exit(2);
}
const topic = `${prefix}-kjs`;
const groupTopic = `${prefix}-kjs-group`;
const group = `${prefix}-kjs-group`;
const kafka = new Kafka({ clientId: 'directlog-compat', brokers: [bootstrap], logLevel: logLevel.NOTHING,
  connectionTimeout: 10000, requestTimeout: 30000, retry: { retries: 5 } });
let passed = 0;
let failed = 0;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const withTimeout = (promise, what) => Promise.race([promise,
  sleep(WAIT_MS * 2).then(() => { throw new Error(`${what}: no answer in ${WAIT_MS * 2} ms`); })]);
async function until(condition, what) {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
async function runCase(name, fn) {
  const started = Date.now();
  try {
    const detail = await withTimeout(fn(), name);
    passed++;
    console.log(`CASE ${CLIENT} ${name} PASS ${detail} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
    return true;
  } catch (err) {
    failed++;
    console.log(`CASE ${CLIENT} ${name} FAIL ${String(err && err.stack || err).split('\n')[0].slice(0, 400)}`);
    console.error(err);
    return false;
  }
}
const asRecord = (m) => JSON.stringify([String(m.key), String(m.value),
  Object.entries(m.headers || {}).map(([k, v]) => [k, String(v)]).sort()]);
const expected = (from, to, tag) => {
  const out = [];
  for (let i = from; i < to; i++) {
    out.push(JSON.stringify([`key-${i}`, `${tag}-${i}`, [['seq', String(i)], ['source', 'kafkajs']]]));
  }
  return out;
};
function expectSame(want, got, what) {
  const gotSet = new Set(got);
  const missing = want.filter((r) => !gotSet.has(r));
  const extra = got.filter((r) => !want.includes(r));
  if (missing.length || extra.length || got.length !== want.length) {
    throw new Error(`${what}: want ${want.length}, got ${got.length}; missing ${missing.slice(0, 2)}, unexpected ${extra.slice(0, 2)}`);
  }
}

async function produce(t, from, to, tag) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const messages = [];
    for (let i = from; i < to; i++) {
      messages.push({ key: `key-${i}`, value: `${tag}-${i}`, partition: i % 2,
        headers: { source: 'kafkajs', seq: String(i) } });
    }
    return await producer.send({ topic: t, acks: -1, compression: CompressionTypes.GZIP, messages });
  } finally {
    await producer.disconnect();
  }
}

// maxWaitTimeInMs: a fetch long-polls at most this long, and disconnect() waits for the fetch in flight.
const newConsumer = (groupId) => kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000,
  maxWaitTimeInMs: 500 });

// Runs a consumer of groupId on t until count records (then quietMs more, to catch extras); returns [record, partition].
async function consumeGroup(groupId, t, count, quietMs) {
  const consumer = newConsumer(groupId);
  const got = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [t], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { got.push([asRecord(message), partition]); } });
    await until(() => got.length >= count, `${count} records (have ${got.length})`);
    await sleep(quietMs);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();

  await runCase('create-topic', async () => {
    await admin.createTopics({ waitForLeaders: true, timeout: WAIT_MS,
      topics: [topic, groupTopic].map((t) => ({ topic: t, numPartitions: 2, replicationFactor: 1 })) });
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic, groupTopic] });
    const counts = topics.map((t) => t.partitions.length);
    if (counts.join() !== '2,2') throw new Error(`partition counts ${counts}`);
    return '2 topics of 2 partitions, in metadata';
  });

  await runCase('produce', async () => {
    const result = await produce(topic, 0, 20, 'value');
    const bases = result.map((r) => `${r.partition}:${r.baseOffset}`).sort().join();
    if (bases !== '0:0,1:0') throw new Error(`base offsets ${bases}`);
    const ends = (await admin.fetchTopicOffsets(topic)).map((p) => `${p.partition}:${p.high}`).sort().join();
    if (ends !== '0:10,1:10') throw new Error(`end offsets ${ends}`);
    return '20 records with keys and 2 headers, gzip, idempotent acks=all; end offsets 10 and 10';
  });

  await runCase('consume', async () => {
    const got = await consumeGroup(`${prefix}-kjs-read`, topic, 20, 0);
    expectSame(expected(0, 20, 'value'), got.map(([r]) => r), 'records read from the beginning');
    return '20 records back from the beginning, keys and headers intact';
  });

  const members = [];
  const groupPassed = await runCase('group-two-members', async () => {
    const assignment = [null, null];
    const got = [[], []];
    for (const i of [0, 1]) {
      const consumer = newConsumer(group);
      consumer.on(consumer.events.GROUP_JOIN, (e) => { assignment[i] = (e.payload.memberAssignment[groupTopic] || []).join(); });
      await consumer.connect();
      await consumer.subscribe({ topics: [groupTopic], fromBeginning: true });
      await consumer.run({ autoCommit: false,
        eachMessage: async ({ partition, message }) => { got[i].push([asRecord(message), partition, message.offset]); } });
      members.push(consumer);
    }
    // Both members must hold a partition before records exist, so none is read twice across a rebalance.
    await until(() => assignment.every((a) => a !== null && a.split(',').length === 1) && assignment[0] !== assignment[1],
      `one partition each (assignments ${JSON.stringify(assignment)})`);
    await produce(groupTopic, 0, 20, 'group');
    await until(() => got[0].length + got[1].length >= 20, 'the group to read 20 records');
    for (const i of [0, 1]) {
      const parts = [...new Set(got[i].map(([, p]) => String(p)))].join();
      if (parts !== assignment[i]) throw new Error(`member ${i} assigned ${assignment[i]} read partitions ${parts}`);
      const last = got[i][got[i].length - 1];
      await members[i].commitOffsets([{ topic: groupTopic, partition: last[1], offset: String(Number(last[2]) + 1) }]);
    }
    expectSame(expected(0, 20, 'group'), got.flat().map(([r]) => r), 'records read by the group');
    return `one partition each, ${got[0].length}+${got[1].length} records, offsets committed`;
  });

  await runCase('group-resume', async () => {
    for (const m of members) await m.disconnect();
    if (!groupPassed) throw new Error('not run: it resumes from the offsets group-two-members commits, and that case failed');
    await produce(groupTopic, 20, 30, 'group');
    const got = await consumeGroup(group, groupTopic, 10, 2000);
    expectSame(expected(20, 30, 'group'), got.map(([r]) => r), 'records after restart');
    return 'a new member resumed at the committed offsets: exactly the 10 new records';
  });

  await admin.disconnect();
}

const guard = setTimeout(() => {
  console.log(`CASE ${CLIENT} run FAIL the whole run took longer than ${WAIT_MS * 8} ms`);
  console.log(`COMPAT-SUMMARY client=${CLIENT} passed=${passed} failed=${failed + 1}`);
  process.exit(1);
}, WAIT_MS * 8);
main()
  .catch((err) => { failed++; console.log(`CASE ${CLIENT} setup FAIL ${String(err).slice(0, 400)}`); })
  .finally(() => {
    clearTimeout(guard);
    console.log(`COMPAT-SUMMARY client=${CLIENT} passed=${passed} failed=${failed}`);
    process.exit(failed === 0 ? 0 : 1);
  });
