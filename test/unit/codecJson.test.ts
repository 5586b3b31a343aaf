import { TypeRegistry } from '@polkadot/types';
import BN from 'bn.js';

import { toSidecarJson } from '../../src/decode/codecJson';

const registry = new TypeRegistry();

describe('toSidecarJson', () => {
  it('writes integers of every width as decimal strings', () => {
    expect(toSidecarJson(registry.createType('u8', 7))).toBe('7');
    expect(toSidecarJson(registry.createType('u128', '340282366920938463463374607431768211455'))).toBe('340282366920938463463374607431768211455');
    expect(toSidecarJson(registry.createType('Compact<u64>', 12))).toBe('12');
    expect(toSidecarJson(42)).toBe('42');
    expect(toSidecarJson(0)).toBe('0');
    expect(toSidecarJson(new BN('1000000000000000000000'))).toBe('1000000000000000000000');
  });

  it('keeps falsy non-numbers as they are', () => {
    expect(toSidecarJson(null)).toBeNull();
    expect(toSidecarJson(undefined)).toBeUndefined();
    expect(toSidecarJson(false)).toBe(false);
    expect(toSidecarJson('')).toBe('');
  });

  it('unwraps options and writes None as null', () => {
    expect(toSidecarJson(registry.createType('Option<u32>', 5))).toBe('5');
    expect(toSidecarJson(registry.createType('Option<u32>', null))).toBeNull();
  });

  it('writes data-less enums by name and others as { camelCaseVariant: value }', () => {
    expect(toSidecarJson(registry.createType('DispatchClass', 'Operational'))).toBe('Operational');
    const era = registry.createType('ExtrinsicEra', new Uint8Array([0]));
    expect(toSidecarJson(era)).toEqual({ immortalEra: '0x00' });
    const alice = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';
    expect(toSidecarJson(registry.createType('MultiAddress', { Id: alice }))).toEqual({ id: alice });
  });

  it('walks structs by field and arrays by element', () => {
    const info = registry.createType('DispatchInfo', { weight: { refTime: 10, proofSize: 2 }, class: 'Normal', paysFee: 'Yes' });
    expect(toSidecarJson(info)).toEqual({ weight: { refTime: '10', proofSize: '2' }, class: 'Normal', paysFee: 'Yes' });
    expect(toSidecarJson(registry.createType('Vec<u16>', [1, 2]))).toEqual(['1', '2']);
    expect(toSidecarJson({ nested: [1, { deep: new BN(2) }] })).toEqual({ nested: ['1', { deep: '2' }] });
  });

  it('writes maps with their keys as strings', () => {
    const map = registry.createType('BTreeMap<u32, bool>', new Map([[1, true]]));
    expect(toSidecarJson(map)).toEqual({ 1: true });
  });
});
