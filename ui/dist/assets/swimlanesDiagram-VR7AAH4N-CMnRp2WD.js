import{c as r,s as e}from"./flowDiagram-HODETNUW-CnSdp8s_.js";import{_ as a}from"./diagram-D7Wk6Rpd.js";import"./chunk-5VM5RSS4-CmP0Gi6V.js";import"./chunk-XXDRQBXY-BPAEDr7i.js";import"./chunk-POPQ4Y6H-CFeTn-MI.js";import"./chunk-F27PBJKO-CYdNMQDt.js";import"./channel-l19sg39b.js";import"./index-3kFOt43N.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
