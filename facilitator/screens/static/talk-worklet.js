// The talk control's recorder: the microphone's samples, at the audio context's own
// rate (often 48 kHz), low-passed and resampled to 16 kHz mono signed 16-bit, posted
// to the page every 100 ms while the control is held.  {talk: true} starts a fresh
// utterance, {talk: false} posts what is left and then {flushed: true}.
"use strict";

const OUT_RATE = 16000;
const BLOCK = 1600;       // 100 ms at 16 kHz
const TAPS = 31;

// a windowed-sinc low-pass below the new Nyquist frequency (7 kHz), unity gain
function lowpass(cutoff) {
  const h = new Float32Array(TAPS);
  const middle = (TAPS - 1) / 2;
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const x = i - middle;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const window = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (TAPS - 1));
    h[i] = sinc * window;
    sum += h[i];
  }
  for (let i = 0; i < TAPS; i++) h[i] /= sum;
  return h;
}

class TalkCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.ratio = sampleRate / OUT_RATE;
    this.taps = lowpass(Math.min(7000, OUT_RATE * 0.45) / sampleRate);
    this.talk = false;
    this.reset();
    this.port.onmessage = (event) => {
      const wanted = Boolean(event.data && event.data.talk);
      if (wanted && !this.talk) this.reset();
      if (!wanted && this.talk) {
        this.post();
        this.port.postMessage({ flushed: true });
      }
      this.talk = wanted;
    };
  }

  reset() {
    this.history = new Float32Array(TAPS);   // the last inputs, a ring
    this.at = 0;
    this.n = 0;          // filtered samples so far
    this.t = 0;          // the next output's position, in filtered samples
    this.prev = 0;
    this.out = new Int16Array(BLOCK);
    this.filled = 0;
  }

  post() {
    if (!this.filled) return;
    const pcm = this.out.slice(0, this.filled);
    this.port.postMessage({ pcm: pcm.buffer }, [pcm.buffer]);
    this.filled = 0;
  }

  emit(value) {
    const v = Math.max(-1, Math.min(1, value));
    this.out[this.filled++] = v < 0 ? Math.round(v * 32768) : Math.round(v * 32767);
    if (this.filled === BLOCK) this.post();
  }

  process(inputs) {
    const input = inputs[0];
    if (!this.talk || !input || !input.length || !input[0]) return true;
    const frames = input[0].length;
    const channels = input.length;
    for (let i = 0; i < frames; i++) {
      let x = 0;
      for (let c = 0; c < channels; c++) x += input[c][i];
      x /= channels;
      this.history[this.at] = x;
      this.at = (this.at + 1) % TAPS;
      let y = 0;
      for (let k = 0, j = this.at; k < TAPS; k++, j = (j + 1) % TAPS) y += this.taps[k] * this.history[j];
      // linear interpolation between the last two filtered samples at each output position
      while (this.t <= this.n) {
        const f = this.t - (this.n - 1);
        this.emit(this.prev + (y - this.prev) * f);
        this.t += this.ratio;
      }
      this.prev = y;
      this.n += 1;
    }
    return true;
  }
}

registerProcessor("talk-capture", TalkCapture);
