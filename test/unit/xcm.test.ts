import { forParachain, type XcmMessages } from '../../src/services/blocks/xcm';

const messages: XcmMessages = {
  horizontalMessages: [
    { originParaId: '1000', data: 'a' },
    { originParaId: '2000', data: 'b' },
  ],
  downwardMessages: [{ sentAt: '5', msg: 'c' }],
  upwardMessages: [
    { originParaId: '2000', data: 'd' },
    { originParaId: '3000', data: 'e' },
  ],
};

describe('forParachain', () => {
  it("keeps one parachain's horizontal and upward messages, and every downward one", () => {
    expect(forParachain(messages, 2000)).toEqual({
      horizontalMessages: [{ originParaId: '2000', data: 'b' }],
      downwardMessages: messages.downwardMessages,
      upwardMessages: [{ originParaId: '2000', data: 'd' }],
    });
  });

  it('keeps everything for no paraId or 0, as sidecar does', () => {
    expect(forParachain(messages, undefined)).toBe(messages);
    expect(forParachain(messages, 0)).toBe(messages);
  });

  it('keeps nothing but downward messages for a parachain that sent none', () => {
    expect(forParachain(messages, 4000)).toEqual({ horizontalMessages: [], downwardMessages: messages.downwardMessages, upwardMessages: [] });
  });
});
