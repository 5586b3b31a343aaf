import './devnet/quiet';
import { ensureSeededRealChain, nodeBinary } from './devnet/realNode';
ensureSeededRealChain(nodeBinary(), (l) => console.log(new Date().toISOString(), l)).then((s) => { console.log('seeded', s.dbDir); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
