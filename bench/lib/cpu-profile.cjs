/*
 * Preloaded into a service (NODE_OPTIONS=--require, where --cpu-prof is not allowed) by a bench's --profile DIR:
 * profiles the main thread from start and writes DIR/service-<pid>.cpuprofile (open it in Chrome's DevTools)
 * when the process is asked to stop (SIGTERM or SIGINT), before its graceful shutdown. Alongside, the event
 * loop's stalls over 50 ms (a 10 ms timer that fired late) go to DIR/stalls-<pid>.json, each with its end on the
 * profile's clock (microseconds, as the profile's timestamps), to read the profile's samples of that stretch.
 */
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  const stalls = [];
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    const lateMs = Number(now - last) / 1e6 - 10;
    if (lateMs > 50) stalls.push({ endUs: Number(now / 1000n), ms: Math.round(lateMs) });
    last = now;
  }, 10).unref();
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      fs.writeFileSync(path.join(dir, `stalls-${process.pid}.json`), JSON.stringify(stalls));
      if (!error) fs.writeFileSync(path.join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.once('SIGTERM', write);
  process.once('SIGINT', write);
}
