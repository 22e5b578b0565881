// Exhaustive check behind tessel-quantize-by-reciprocal (bench/notes/quantize-by-reciprocal.md).
// Build and run on an AVX-512 host: cc -O2 -mavx512f -mavx512dq -mfma bench/reciprocal_check.c -lm && ./a.out
#include <immintrin.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
// All 2^32 f32 x, for many scales s: roundeven(x/s) == roundeven(select(isnan(q), y, q)),
// y = x*r, r = RN(1/s), e = fma(-y, s, x), q = fma(e, r, y).
static long check(float s){
  float r=1.0f/s; long bad=0;
  __m512 vs=_mm512_set1_ps(s), vr=_mm512_set1_ps(r);
  __m512i idx=_mm512_setr_epi32(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15);
  for(uint64_t base=0; base<(1ull<<32); base+=16){
    __m512 x=_mm512_castsi512_ps(_mm512_add_epi32(_mm512_set1_epi32((uint32_t)base),idx));
    __m512 d=_mm512_roundscale_ps(_mm512_div_ps(x,vs),8);
    __m512 y=_mm512_mul_ps(x,vr);
    __m512 e=_mm512_fnmadd_ps(y,vs,x);
    __m512 q=_mm512_fmadd_ps(e,vr,y);
    q=_mm512_mask_blend_ps(_mm512_cmp_ps_mask(q,q,_CMP_UNORD_Q),q,y);
    q=_mm512_roundscale_ps(q,8);
    __mmask16 ok=_mm512_cmp_ps_mask(d,q,_CMP_EQ_OQ) | (_mm512_cmp_ps_mask(d,d,_CMP_UNORD_Q)&_mm512_cmp_ps_mask(q,q,_CMP_UNORD_Q));
    // overflow: y inf while d finite huge: both saturate any int8 clamp; count separately
    __mmask16 sat=_mm512_cmp_ps_mask(_mm512_abs_ps(d),_mm512_set1_ps(1e30f),_CMP_GE_OQ) & _mm512_cmp_ps_mask(_mm512_abs_ps(q),_mm512_set1_ps(1e30f),_CMP_GE_OQ) & ~_mm512_cmp_ps_mask(d,q,_CMP_UNORD_Q);
    ok|=sat & ~( _mm512_cmp_ps_mask(_mm512_mul_ps(d,q),_mm512_setzero_ps(),_CMP_LT_OQ));
    if(ok!=0xffff) bad+=16-__builtin_popcount(ok);
  }
  return bad;
}
int main(){
  float fixed[]={0x1p-64f,0x1.fffffep-64f,0x1p64f,0.0173f,0.1f,3.0f/255,1.41421356f,0.999999f,123.4f,0.00392156863f,2.5e-5f,0.3f,-0.05f};
  long total=0;
  for(unsigned i=0;i<sizeof fixed/sizeof*fixed;i++){long b=check(fixed[i]); total+=b; printf("s=%a bad=%ld\n",fixed[i],b); fflush(stdout);}
  srand(7);
  for(int i=0;i<20;i++){ double l=((double)rand()/RAND_MAX)*128-64; float s=(float)ldexp(1.0+(double)rand()/RAND_MAX, (int)floor(l)); long b=check(s); total+=b; printf("s=%a bad=%ld\n",s,b); fflush(stdout);}
  printf("TOTAL bad %ld\n",total);
}
