import{c as r,s as e}from"./flowDiagram-HODETNUW-CpPaYESn.js";import{_ as a}from"./diagram-DRihqmvM.js";import"./chunk-5VM5RSS4-qaYcjufJ.js";import"./chunk-XXDRQBXY-DpQ5wOXk.js";import"./chunk-POPQ4Y6H-sM8zm5uw.js";import"./chunk-F27PBJKO-DLUsxSJu.js";import"./channel-DFDqaYec.js";import"./index-Bc7UFt6L.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
