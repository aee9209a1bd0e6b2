import { Counter, Histogram, Registry } from 'prom-client';
const registry = new Registry();
const B = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const O = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];
const requests = new Counter({ name: 'a', help: 'a', labelNames: ['route', 'status', 'provider'], registers: [registry] });
const reqSec = new Histogram({ name: 'b', help: 'b', labelNames: ['route', 'provider'], buckets: B, registers: [registry] });
const upSec = new Histogram({ name: 'c', help: 'c', labelNames: ['provider', 'route'], buckets: B, registers: [registry] });
const ovSec = new Histogram({ name: 'd', help: 'd', labelNames: ['route'], buckets: O, registers: [registry] });
const results = new Counter({ name: 'e', help: 'e', labelNames: ['route', 'result'], registers: [registry] });
const bytes = new Counter({ name: 'f', help: 'f', registers: [registry] });
const cost = new Counter({ name: 'g', help: 'g', labelNames: ['provider', 'billing'], registers: [registry] });
const route = 'chat_completions', provider = 'openai';
function once(i) {
  requests.inc({ route, status: String(200), provider });
  reqSec.observe({ route, provider }, 0.003 + (i % 7) * 0.001);
  upSec.observe({ provider, route }, 0.002 + (i % 5) * 0.001);
  ovSec.observe({ route }, 0.0002 + (i % 3) * 0.0001);
  results.inc({ route, result: 'miss' });
  bytes.inc(1500);
  cost.inc({ provider, billing: 'platform' }, 12);
}
for (let r = 0; r < 5; r++) {
  const n = 500_000; const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) once(i);
  console.log('ns per request (7 metric calls):', Number(process.hrtime.bigint() - t) / n);
}
